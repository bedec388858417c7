i, j = sch.get_loops("tri")
sch.reorder(j, i)
