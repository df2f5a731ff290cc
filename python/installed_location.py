# Installed as mote/_location.py: motec is <prefix>/bin/motec, and this file
# is <prefix>/lib/python3/dist-packages/mote/_location.py.
import os

MOTEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[os.pardir] * 4, "bin", "motec")
