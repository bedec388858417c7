i, j = sch.get_loops("B")
sch.annotate(j, "pragma_x", 1)
sch.fuse(i, j)
