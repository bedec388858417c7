sch.reverse_compute_inline("O1")
sch.reverse_compute_inline("O2")
sch.reverse_compute_inline("O3")
sch.reverse_compute_inline("O4")
