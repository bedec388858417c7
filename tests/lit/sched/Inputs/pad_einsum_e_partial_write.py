i, j = sch.get_loops("B")
sch.loop_partition(i, [8, 5, None])
sch.pad_einsum("B_i2", [1, 7])
