sch.compute_inline("acc")
