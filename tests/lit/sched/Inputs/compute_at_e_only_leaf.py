i, j = sch.get_loops("out")
sch.compute_at("alone", i)
