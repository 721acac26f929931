// ddb with Testcontainers for Java (JUnit 5), in place of amazon/dynamodb-local.
// Dependencies: org.testcontainers:testcontainers, org.testcontainers:junit-jupiter,
// software.amazon.awssdk:dynamodb. (Not run by tools/container-check.sh: no Maven
// repository is reachable from the machines that check it.)
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.*;

@Testcontainers
class DdbContainerTest {
  @Container
  static final GenericContainer<?> DDB =
      new GenericContainer<>(DockerImageName.parse("ddb"))
          .withExposedPorts(8000)
          .withCommand("-jar", "DynamoDBLocal.jar", "-sharedDb", "-inMemory")
          .waitingFor(Wait.forHealthcheck()); // the image's own HEALTHCHECK

  @Test
  void tablesInADdbContainer() {
    DynamoDbClient client =
        DynamoDbClient.builder()
            .endpointOverride(URI.create("http://" + DDB.getHost() + ":" + DDB.getMappedPort(8000)))
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
            .build();
    client.createTable(
        CreateTableRequest.builder()
            .tableName("orders")
            .billingMode(BillingMode.PAY_PER_REQUEST)
            .attributeDefinitions(
                AttributeDefinition.builder().attributeName("pk").attributeType("S").build())
            .keySchema(KeySchemaElement.builder().attributeName("pk").keyType("HASH").build())
            .build());
    assertEquals(List.of("orders"), client.listTables().tableNames());
  }
}
