sch.work_on("mm_relu")
i, j = sch.get_loops("C")
sch.decompose_reduction("Y", i)
