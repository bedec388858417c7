i, j = sch.get_loops("B")
sch.reorder(i, j, i)
