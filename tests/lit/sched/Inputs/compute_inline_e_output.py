sch.compute_inline("C")
