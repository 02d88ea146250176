from django.apps import AppConfig


class BenchConfig(AppConfig):
    """The benchmarks: bench_search, bench_admin, bench_tracing and soak."""

    name = "bench"
    verbose_name = "Benchmarks"
