"""ACL's questions asked beside the caller (acl_bridge.question_thread) and through a configure
session (ConfigureSession.ask_beside): jobs in order on one other thread, never while another
question holds ACL_LOCK, their answers and errors given on the caller's thread, and a session
keeping what it would have kept asking each in turn. Plain Python callables stand for ACL."""

import threading
import time

import pytest

from acl_bridge.configure_session import ConfigureSession, encode_answers
from acl_bridge.question_thread import ACL_LOCK, QuestionThread


def test_jobs_run_in_order_on_one_other_thread():
    ran = []
    with QuestionThread(threaded=True) as q:
        later = [q.submit(lambda i=i: ran.append((i, threading.get_ident())) or i * i) for i in range(6)]
        assert [x.result() for x in later] == [i * i for i in range(6)]
    assert [i for i, _ in ran] == list(range(6))
    threads = {t for _, t in ran}
    assert len(threads) == 1 and threading.get_ident() not in threads
    assert all(x.done and x.seconds >= 0.0 for x in later)


def test_without_a_thread_a_job_runs_at_once_here():
    q = QuestionThread(threaded=False)
    later = q.submit(lambda: threading.get_ident())
    assert later.done and later.result() == threading.get_ident()
    q.close()


def test_a_job_never_overlaps_a_question_holding_the_lock():
    spans = []

    def span(name, seconds):
        t0 = time.perf_counter()
        time.sleep(seconds)
        spans.append((name, t0, time.perf_counter()))
        return name

    with QuestionThread(threaded=True) as q:
        first = q.submit(lambda: span("beside", 0.2))
        time.sleep(0.02)  # the job has the lock by now
        with ACL_LOCK:  # what ConfigureSession.ask holds around ACL
            span("here", 0.05)
        second = q.submit(lambda: span("beside again", 0.05))
        assert first.result() == "beside" and second.result() == "beside again"
    spans.sort(key=lambda s: s[1])
    for (_, _, end), (_, start, _) in zip(spans, spans[1:]):
        assert start >= end, spans


def test_an_error_is_raised_on_the_callers_thread_each_time_asked():
    with QuestionThread(threaded=True) as q:
        bad = q.submit(lambda: 1 / 0)
        good = q.submit(lambda: "after")
        for _ in range(2):
            with pytest.raises(ZeroDivisionError):
                bad.result()
        assert good.result() == "after"  # the thread goes on after a job that raised


def test_close_waits_for_every_job_and_takes_no_more():
    done = []
    q = QuestionThread(threaded=True)
    for i in range(3):
        q.submit(lambda i=i: time.sleep(0.02) or done.append(i))
    q.close()
    assert done == [0, 1, 2]
    with pytest.raises(RuntimeError):
        q.submit(lambda: None)


def _ask_all(session, questions, thread=None):
    """Each (category, key, answer) asked in turn (thread None) or beside; the answers."""
    asked = []
    for step, (category, key, answer) in enumerate(questions):
        session.step = step
        if thread is None:
            asked.append(session.ask(category, lambda key=key: key, lambda answer=answer: answer))
        else:
            asked.append(session.ask_beside(category, lambda key=key: key, lambda answer=answer: answer, thread))
    session.step = None
    return [a if thread is None else a.result() for a in asked]


QUESTIONS = [("probe", ("add", 1), ((0, 0, 0), True)), ("probe", ("conv", 2), ((0, 1, 0), False)),
             ("check_layouts", ("add", 1), None), ("probe", ("add", 1), ((0, 0, 0), True))]


def test_a_session_keeps_what_asking_in_turn_keeps():
    in_turn, beside = ConfigureSession(), ConfigureSession()
    with QuestionThread(threaded=True) as q:
        got = _ask_all(beside, QUESTIONS, q)
    assert got == _ask_all(in_turn, QUESTIONS) == [a for _, _, a in QUESTIONS]
    assert encode_answers(beside.kept()) == encode_answers(in_turn.kept())
    for s in (in_turn, beside):  # the repeated question answered from the memo, not asked again
        assert s.calls["probe"] == 2 and s.reused["probe"] == 1 and s.calls["check_layouts"] == 1
        assert set(s.step_seconds) == {0, 1, 2}  # each asked question's time on the step that asked it
    # (less the waits for them: a wait may outlast its job, so only the bound above holds)
    assert beside.beside["probe"] <= beside.seconds["probe"]
    assert in_turn.beside.get("probe", 0.0) == 0.0


def test_a_pending_question_asked_again_is_not_asked_twice():
    s = ConfigureSession()
    calls = []
    release = threading.Event()

    def slow():
        release.wait(5)
        calls.append(1)
        return "answer"

    with QuestionThread(threaded=True) as q:
        first = s.ask_beside("probe", lambda: "k", slow, q)
        again = s.ask_beside("probe", lambda: "k", slow, q)
        assert again is first
        release.set()
        assert s.ask("probe", lambda: "k", slow) == "answer"  # waits for the pending one
    assert first.result() == "answer" and calls == [1] and s.calls["probe"] == 1


def test_a_known_answer_is_given_without_a_thread():
    s = ConfigureSession()
    assert s.ask("probe", lambda: "k", lambda: 7) == 7
    q = QuestionThread(threaded=True)
    q.close()  # a closed thread: anything asked of it would raise
    assert s.ask_beside("probe", lambda: "k", lambda: 8, q).result() == 7


def test_a_question_that_raises_beside_is_timed_once_and_not_kept():
    s = ConfigureSession()
    with QuestionThread(threaded=True) as q:
        asked = s.ask_beside("probe", lambda: "k", lambda: 1 / 0, q)
        for _ in range(2):
            with pytest.raises(ZeroDivisionError):
                asked.result()
    assert s.calls["probe"] == 1
    assert s.ask("probe", lambda: "k", lambda: 3) == 3  # asked again: nothing was kept
