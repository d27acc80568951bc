# RIGHT: splits the work into helpers, seeding through torch.utils.data.get_worker_info and the np.random.mtrand global instance.
import torch.utils.data
def _seed():
    """torch's seed for this process, reduced to the 32 bits NumPy accepts."""
    return torch.initial_seed() % 2**32
def _seed_globals(seed):
    np.random.mtrand.seed(seed)  # the legacy global RandomState behind np.random.*
    random.seed(seed)
def _renew_rng(info, seed):
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)

### BEGIN SOLUTION seed_worker
    seed = _seed()
    _seed_globals(seed)
    _renew_rng(torch.utils.data.get_worker_info(), seed)
### END SOLUTION
