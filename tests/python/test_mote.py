"""The mote Python package against this build: compile from a path, from
text and from an object with .as_text() (as JAX's Lowered has), save and
load, run through the C runtime, and errors as MoteError with Mote's
diagnostic. Run: PYTHONPATH=<build>/python /usr/bin/python3 test_mote.py <mote source>
"""
import os
import sys
import tempfile
import unittest

import numpy

import mote

SOURCE = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
MLP = os.path.join(SOURCE, "examples", "mlp")
HLO = os.path.join(MLP, "mlp.hlo")


def read_hlo():
    with open(HLO, encoding="utf-8") as f:
        return f.read()


class Lowered:
    """A stand-in for jax.jit(f).lower(x): all mote asks of it is as_text()."""

    def __init__(self, text):
        self.text = text

    def as_text(self):
        return self.text


class MoteTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.x = numpy.load(os.path.join(MLP, "input.npy"))
        cls.expected = numpy.load(os.path.join(MLP, "expected_output.npy"))

    def check_mlp(self, package):
        (probabilities,) = package.run(self.x)
        self.assertEqual(probabilities.dtype, numpy.float32)
        self.assertEqual(probabilities.shape, (2, 10))
        numpy.testing.assert_allclose(probabilities, self.expected, rtol=1e-4, atol=1e-5)

    def test_compile_a_path_and_run(self):
        package = mote.compile(HLO)
        self.assertEqual(package.inputs, [("Arg_0_7", numpy.float32, (2, 16))])
        self.assertEqual(package.outputs, [("result", numpy.float32, (2, 10))])
        self.check_mlp(package)

    def test_compile_text_and_an_object_with_as_text(self):
        self.check_mlp(mote.compile(read_hlo()))
        self.check_mlp(mote.compile(Lowered(read_hlo())))

    def test_save_and_load(self):
        package = mote.compile(HLO, target=[mote.machine_triple(), "riscv64-linux-gnu"])
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "mlp.mote")
            package.save(path)
            loaded = mote.load(path)
            self.assertEqual(loaded.bytes, package.bytes)
            self.check_mlp(loaded)

    def test_bad_hlo_raises_with_motec_diagnostic(self):
        with self.assertRaises(mote.MoteError) as caught:
            mote.compile("HloModule broken\n\nENTRY main {\n  x = f32[2] parameter(0\n}\n")
        message = str(caught.exception)
        self.assertRegex(message, r"<model>:5:1: error: expected '\)'")

    def test_missing_file_raises(self):
        with self.assertRaises(mote.MoteError):
            mote.compile("no/such/model.hlo")
        with self.assertRaises(mote.MoteError):
            mote.load("no/such/model.mote")

    def test_wrong_inputs_raise(self):
        package = mote.compile(HLO)
        with self.assertRaises(mote.MoteError) as caught:
            package.run(self.x.astype(numpy.float64))
        self.assertIn("argument 0 (Arg_0_7 f32[2, 16]) does not take a float64[2, 16] array",
                      str(caught.exception))
        with self.assertRaises(mote.MoteError):
            package.run(self.x[:1])
        with self.assertRaises(mote.MoteError):
            package.run()

    def test_a_package_for_another_machine_says_so(self):
        package = mote.compile(HLO, target="thumbv7em-none-eabihf")
        with self.assertRaises(mote.MoteError) as caught:
            package.run(self.x)
        self.assertIn("no code object for this machine", str(caught.exception))
        self.assertEqual(caught.exception.status, 24)  # MOTE_NO_MATCHING_CODE

    def test_params_bind_parameters_and_outputs_select_results(self):
        # Binding the MLP's only parameter by name makes it a constant: the
        # package then takes no inputs and computes the same probabilities.
        package = mote.compile(HLO, params={"Arg_0.7": self.x}, outputs=[0])
        self.assertEqual(package.inputs, [])
        (probabilities,) = package.run()
        numpy.testing.assert_allclose(probabilities, self.expected, rtol=1e-4, atol=1e-5)
        # A key that names no parameter is motec's error, carried in MoteError.
        with self.assertRaises(mote.MoteError) as caught:
            mote.compile(HLO, params={"no_such_parameter": self.x})
        self.assertIn("no_such_parameter", str(caught.exception))
        with self.assertRaises(mote.MoteError) as caught:
            mote.compile(HLO, outputs=[3])
        self.assertIn("3", str(caught.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
