i, j = sch.get_loops("B")
sch.annotate(i, "pragma_x", 1)
sch.split(i, factors=[None, 4])
