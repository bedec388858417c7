sch.reverse_compute_inline("Q")
