i, j = sch.get_loops("B")
sch.decompose_reduction("B", i)
