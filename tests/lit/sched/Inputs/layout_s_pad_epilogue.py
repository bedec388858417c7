# B's writer no longer traverses it row-major (loops swapped): the padding is
# filled by a block after it.
i, j = sch.get_loops("B")
sch.reorder(j, i)
sch.transform_layout("B", ("write", 0), lambda i, j: (i // 4, j, i % 4), pad_value=0.0)
