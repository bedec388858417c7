sch.reverse_compute_inline("D2")
