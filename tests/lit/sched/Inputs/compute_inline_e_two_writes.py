sch.compute_inline("two")
