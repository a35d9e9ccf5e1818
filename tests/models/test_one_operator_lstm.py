"""LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM in the one-operator coverage (test_one_operator's
``test_every_supported_operator_has_a_case`` finds this file by its name): their cases and
tests live in test_lstm_lowering.py, registered here by their opcodes."""

from .test_lstm_lowering import CASES

OPCODES = tuple(sorted({case[1] for case in CASES}))  # (id, opcode, ...) rows
