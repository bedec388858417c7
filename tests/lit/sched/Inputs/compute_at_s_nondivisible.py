i, j = sch.get_loops("D")
a, b = sch.split(j, factors=[None, 5])
sch.compute_at("C", a)
sch.compute_at("B", a)
