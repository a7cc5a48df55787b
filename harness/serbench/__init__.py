"""serbench: what complex-object implementations cost a data system on real tasks."""

__version__ = "0.1.0"
