i, j, k = sch.get_loops("C")
sch.sample_perfect_tile(i, n=2, max_innermost_factor=0)
