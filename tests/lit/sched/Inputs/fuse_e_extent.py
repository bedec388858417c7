i, j = sch.get_loops("tri")
sch.fuse(i, j)
