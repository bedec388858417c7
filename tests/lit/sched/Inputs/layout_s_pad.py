# Rows of B padded from 14 to 16 (its row-major writer stores 0 there); A's padding
# is assumed to hold -1.
sch.transform_layout("B", ("write", 0), lambda i, j: (i // 4, j, i % 4), pad_value=0.0)
sch.transform_layout("B", "A", lambda i, j: [i // 4, j, i % 4], pad_value=lambda a, b, c: T.float32(-1))
