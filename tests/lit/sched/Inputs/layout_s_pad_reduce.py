# The reduction writing B traverses it row-major: its loops become a traversal
# of the padded 4 x 4 shape, init and update store T.if_then_else.
sch.transform_layout("B", "B", lambda i: [i // 4, i % 4], pad_value=0.0)
