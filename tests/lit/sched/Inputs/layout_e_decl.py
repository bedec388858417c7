sch.transform_layout("B", ("write", 0), lambda i: (i // 4, i % 4))
