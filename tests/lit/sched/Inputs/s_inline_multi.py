sch.compute_inline("B")
