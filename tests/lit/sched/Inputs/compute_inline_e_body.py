sch.compute_inline("cond")
