sch.reverse_compute_inline("C")
