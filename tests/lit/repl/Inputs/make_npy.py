# Writes a float32 .npy file of the given shape with seeded pseudo-random
# values (no numpy needed): make_npy.py OUT.npy SEED DIM [DIM ...]
import array, random, struct, sys

out, seed, shape = sys.argv[1], int(sys.argv[2]), tuple(int(d) for d in sys.argv[3:])
rng = random.Random(seed)
n = 1
for d in shape:
    n *= d
data = array.array("f", (rng.uniform(-1, 1) for _ in range(n)))
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
    ", ".join(map(str, shape)) + ("," if len(shape) == 1 else ""))
pad = 64 - (10 + len(header) + 1) % 64
header += " " * pad + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
    f.write(data.tobytes())
