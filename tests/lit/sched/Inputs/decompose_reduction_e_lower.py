i, j, k = sch.get_loops("C")
sch.reorder(k, j)
sch.decompose_reduction("C", j)
