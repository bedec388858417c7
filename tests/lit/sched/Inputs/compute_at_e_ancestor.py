i, j = sch.get_loops("B")
sch.compute_at("B", i)
