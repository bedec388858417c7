i, j = sch.get_loops("B")
a, b = sch.split(j, factors=[None, 5])
sch.reverse_compute_at("C", a)
