i, j = sch.get_loops("O")
sch.compute_at("B", i)
