sch.transform_layout("B", ("write", 0), lambda i, j: (i // 4, j, i % 4), pad_value=lambda a, b: T.float32(0))
