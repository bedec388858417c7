sch.transform_layout("B", ("write", 0), lambda i, j: (i // 4, j, i % 4), pad_value=0)
