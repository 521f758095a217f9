"""Real gRPC clients of Shoal's internal services, built from proto/ with grpcio-tools, for tests that
call the services the way an outsider on the network could."""

import hashlib
import hmac
import importlib
import pathlib
import sys
import tempfile

import grpc
from google.protobuf import message_factory
from grpc_tools import protoc

REPO = pathlib.Path(__file__).resolve().parents[2]
_modules = {}


def proto_modules():
    """(control_pb2, control_pb2_grpc, storage_pb2, storage_pb2_grpc), compiled once per test session."""
    if not _modules:
        out = pathlib.Path(tempfile.mkdtemp(prefix="shoal-grpc-"))
        include = str(pathlib.Path(protoc.__file__).parent / "_proto")
        for name in ("control", "plan", "storage"):
            code = protoc.main(["protoc", f"-I{REPO}", f"-I{include}", f"--python_out={out}",
                                f"--grpc_python_out={out}", str(REPO / "proto" / f"{name}.proto")])
            assert code == 0, f"protoc failed on {name}.proto"
        sys.path.insert(0, str(out))
        for name in ("control_pb2", "control_pb2_grpc", "storage_pb2", "storage_pb2_grpc"):
            _modules[name] = importlib.import_module(f"proto.{name}")
    return _modules


def cluster_token(secret_file):
    """The token a member presents: HMAC-SHA256 of a fixed label under the cluster secret (internal_auth.cpp)."""
    secret = pathlib.Path(secret_file).read_bytes().rstrip(b"\r\n")
    return hmac.new(secret, b"shoal internal gRPC token v1", hashlib.sha256).hexdigest()


def internal_methods():
    """Every method of every internal service: (service name, method descriptor)."""
    modules = proto_modules()
    for module, services in ((modules["control_pb2"], ("Control", "WorkerControl")),
                             (modules["storage_pb2"], ("WorkerData",))):
        for name in services:
            for method in module.DESCRIPTOR.services_by_name[name].methods:
                yield name, method


def call(address, service, method_name, request=None, token=None, timeout=10, credentials=None):
    """Calls service.method_name on `address` as any gRPC client can (a client-streaming method gets the one
    request); `request` defaults to an empty message; over TLS with `credentials` (grpc.ssl_channel_credentials),
    else in plaintext. Returns (grpc.StatusCode, responses or details)."""
    method = next(m for s, m in internal_methods() if s == service and m.name == method_name)
    request_class = message_factory.GetMessageClass(method.input_type)
    response_class = message_factory.GetMessageClass(method.output_type)
    request = request if request is not None else request_class()
    kind = ("stream" if method.client_streaming else "unary") + "_" + ("stream" if method.server_streaming else "unary")
    metadata = [("x-shoal-cluster-token", token)] if token else None
    with (grpc.secure_channel(address, credentials) if credentials else grpc.insecure_channel(address)) as channel:
        callable_ = getattr(channel, kind)(f"/{method.containing_service.full_name}/{method.name}",
                                           request_serializer=request_class.SerializeToString,
                                           response_deserializer=response_class.FromString)
        argument = iter([request]) if method.client_streaming else request
        try:
            answer = callable_(argument, timeout=timeout, metadata=metadata)
            return grpc.StatusCode.OK, list(answer) if method.server_streaming else answer
        except grpc.RpcError as error:
            return error.code(), error.details()
