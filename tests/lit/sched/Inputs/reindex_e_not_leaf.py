i, j = sch.get_loops("B")
sch.blockize(j)
sch.reindex("B_o", "A")
