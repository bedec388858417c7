sch.rolling_buffer("B", 0)
