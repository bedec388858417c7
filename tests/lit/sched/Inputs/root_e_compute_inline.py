sch.compute_inline("root")
