sch.compute_inline("alone")
