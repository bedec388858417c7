i, j = sch.get_loops("D")
sch.reverse_compute_at("B", j)
