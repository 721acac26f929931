# ddb with testcontainers for Python, in place of amazon/dynamodb-local.
#   pip install testcontainers boto3 pytest
# (Not run by tools/container-check.sh: Debian has no testcontainers for Python.)
import boto3
from testcontainers.core.container import DockerContainer
from testcontainers.core.waiting_utils import wait_for_logs


def test_tables_in_a_ddb_container():
    container = (DockerContainer("ddb")
                 .with_exposed_ports(8000)
                 .with_command("-jar DynamoDBLocal.jar -sharedDb -inMemory"))
    with container:
        wait_for_logs(container, "LISTENING 8000")  # printed once the server accepts requests
        client = boto3.client(
            "dynamodb", region_name="us-east-1",
            endpoint_url=f"http://{container.get_container_host_ip()}:"
                         f"{container.get_exposed_port(8000)}",
            aws_access_key_id="local", aws_secret_access_key="local")
        client.create_table(TableName="orders", BillingMode="PAY_PER_REQUEST",
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        assert client.list_tables()["TableNames"] == ["orders"]
