i, j = sch.get_loops("B")
sch.reverse_compute_at("S", j)
