i, j = sch.get_loops("scan")
sch.reorder(j, i)
