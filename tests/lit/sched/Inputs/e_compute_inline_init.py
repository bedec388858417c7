sch.compute_inline("Y")
