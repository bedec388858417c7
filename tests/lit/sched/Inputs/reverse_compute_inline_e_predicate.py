sch.reverse_compute_inline("out")
