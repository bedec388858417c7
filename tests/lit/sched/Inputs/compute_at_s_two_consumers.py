i, j = sch.get_loops("C")
sch.compute_at("B", i)
