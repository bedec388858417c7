i, j = sch.get_loops("scan")
sch.bind(j, "threadIdx.x")
