sch.reverse_compute_inline("cond")
