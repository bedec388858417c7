i, j = sch.get_loops("P")
sch.reverse_compute_at("Q", i)
sch.reverse_compute_at("S", i)
