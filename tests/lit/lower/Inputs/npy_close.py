# npy_close.py GOT.npy WANT.npy: exits 1 unless two float32 .npy files of the
# same shape agree to 1e-5 of the largest |WANT| (no numpy needed); prints
# "close" and the shape.
import array, ast, sys


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    hlen = int.from_bytes(raw[8:10], "little")
    header = ast.literal_eval(raw[10:10 + hlen].decode("latin1"))
    assert header["descr"] == "<f4" and not header["fortran_order"], path
    return header["shape"], array.array("f", raw[10 + hlen:])


(sa, a), (sb, b) = load(sys.argv[1]), load(sys.argv[2])
scale = max(abs(v) for v in b) or 1.0
worst = max(abs(x - y) for x, y in zip(a, b)) / scale
if sa != sb or len(a) != len(b) or worst > 1e-5:
    print("differ: shapes %s %s, max relative difference %g" % (sa, sb, worst))
    sys.exit(1)
print("close", sa)
