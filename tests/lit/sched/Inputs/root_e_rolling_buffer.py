sch.rolling_buffer("root", 0)
