(i,) = sch.get_loops("alone")
sch.compute_at("two", i)
