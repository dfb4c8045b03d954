"""Collects the public names of every lax family module (each defines `__all__`)."""
from .elementwise import *  # noqa: F401,F403
from .structural import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
from .dot import *  # noqa: F401,F403
from .convolution import *  # noqa: F401,F403
from .windowed import *  # noqa: F401,F403
from .sorting import *  # noqa: F401,F403
from .ad_util import *  # noqa: F401,F403
from .parallel import *  # noqa: F401,F403
from .control_flow import *  # noqa: F401,F403
from .extra import *  # noqa: F401,F403
from .complex import *  # noqa: F401,F403
from .fft import *  # noqa: F401,F403
from .helpers import *  # noqa: F401,F403
from .other import *  # noqa: F401,F403
from .composite import *  # noqa: F401,F403
