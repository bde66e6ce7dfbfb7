"""kjudge.KernelEnv: a Gymnasium-style environment over the judge, without
depending on Gymnasium (same method names, signatures and return tuples).

An episode is one task.  The observation is a prompt (str); an action is a
candidate's source (str).  reset() gives the task's prompt; step(source)
judges the source with kjudge.eval and gives the reward computed from the
verdict, the verdict in info, and as the next observation the refinement
prompt (`kjudge prompt --mode refine`: the attempt and the judge's feedback
on it), so that an agent may try again within max_steps.
"""
import math
import os
import random

from . import cli


def default_reward(verdict):
    """0.0 for a candidate that is not correct (any status but "pass").  A
    correct one: 1.0 when it was not timed (no_perf), else
    1 + log2(speedup) over the eager baseline (1.0 as fast, 2.0 twice as
    fast, 3.0 four times as fast), never below 0.1, so that a correct
    candidate always scores more than an incorrect one."""
    if verdict.get("status") != "pass":
        return 0.0
    speedup = verdict.get("speedup")
    if not isinstance(speedup, (int, float)) or not speedup > 0 or math.isinf(speedup):
        return 1.0
    return max(0.1, 1.0 + math.log2(speedup))


class KernelEnv:
    """The environment.

    task: a task id ("level1/relu") or .kt file, or a list of them:
    reset() then picks one at random (reproducibly with reset(seed=...))
    unless options={"task": ...} names it.  backend: the track, "cpu" (runs
    anywhere) by default, "cuda" on a GPU.  max_steps: attempts per episode
    (default 1, one-shot).  stop_on_pass: the episode ends (terminated) at
    the first correct candidate; False keeps it going to max_steps, for
    agents that improve the speed of a correct kernel.  reward: a function
    verdict -> float (default_reward).  prompt_mode: "oneshot" or
    "fewshot" for the first prompt.  kjudge: the executable
    (kjudge.find_kjudge).  eval_options: keyword options of kjudge.eval
    (seeds, no_perf, perf_budget, policy, timeout, seed_secret...).
    """

    metadata = {"render_modes": []}
    render_mode = None

    def __init__(self, task, backend="cpu", *, max_steps=1, stop_on_pass=True, reward=None,
                 prompt_mode=None, kjudge=None, **eval_options):
        self.tasks = [task] if isinstance(task, (str, os.PathLike)) else list(task)
        if not self.tasks:
            raise ValueError("KernelEnv needs at least one task")
        if max_steps < 1:
            raise ValueError("max_steps must be 1 or more")
        self.backend = backend
        self.max_steps = max_steps
        self.stop_on_pass = stop_on_pass
        self.reward_fn = reward or default_reward
        self.prompt_mode = prompt_mode
        self.kjudge = kjudge
        self.eval_options = eval_options
        self.rng = random.Random()
        self.task = None
        self.steps = 0
        self.done = True

    def reset(self, *, seed=None, options=None):
        """Starts an episode; returns (observation, info): the task's prompt
        and {"task", "backend", "max_steps"}.  seed seeds the choice among
        several tasks; options={"task": id} picks one."""
        if seed is not None:
            self.rng.seed(seed)
        options = options or {}
        self.task = options.get("task") or (self.tasks[0] if len(self.tasks) == 1
                                            else self.rng.choice(self.tasks))
        self.steps = 0
        self.done = False
        obs = cli.prompt(self.task, self.backend, mode=self.prompt_mode, kjudge=self.kjudge)
        return obs, {"task": self.task, "backend": self.backend, "max_steps": self.max_steps}

    def step(self, action):
        """Judges action, a candidate's source (code or a path, as
        kjudge.eval takes it).  Returns (observation, reward, terminated,
        truncated, info): the refinement prompt for the next attempt, the
        reward of the verdict, terminated when the candidate passed (and
        stop_on_pass), truncated when max_steps attempts were made without
        that, and info {"verdict", "status", "speedup", "step", "task"}.
        The judge's own failures raise (kjudge.JudgeError...), as does a step
        after the episode ended (RuntimeError: call reset())."""
        if self.done:
            raise RuntimeError("the episode has ended (or never started): call reset()")
        verdict = cli.eval(self.task, action, self.backend, kjudge=self.kjudge, **self.eval_options)
        self.steps += 1
        reward = float(self.reward_fn(verdict))
        terminated = self.stop_on_pass and verdict.get("status") == "pass"
        truncated = not terminated and self.steps >= self.max_steps
        self.done = terminated or truncated
        obs = cli.prompt(self.task, self.backend, mode="refine", source=action, feedback=verdict,
                         round=self.steps, kjudge=self.kjudge)
        info = {"verdict": verdict, "status": verdict.get("status"), "speedup": verdict.get("speedup"),
                "step": self.steps, "task": self.task}
        return obs, reward, terminated, truncated, info

    def render(self):
        return None

    def close(self):
        pass
