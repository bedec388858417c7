i, j, k = sch.get_loops("C")
sch.sample_perfect_tile(i, n=0)
