sch.rolling_buffer("C", 0)
