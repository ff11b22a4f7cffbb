package io.unitas.playground;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The report read back as a document: its table and its charts carry the results' numbers. */
class DrillReportTest {

    private static DrillResult result(Scenario scenario, boolean naive, long accountNotFound, long... perSecond) {
        List<DrillResult.Second> timeline = new ArrayList<>();
        for (int s = 0; s < perSecond.length; s++) {
            timeline.add(new DrillResult.Second(s, Map.of("cn", perSecond[s], "eu", 2L * s), s % 3));
        }
        return new DrillResult(scenario, naive, 1000L * (perSecond.length - 1), 3_000, 7_000, 4321, accountNotFound,
                               2, 0, 5, 77, 1_234, timeline);
    }

    private static Document parse(String html) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
    }

    /** The numbers a polyline draws, read back through the chart's scale (its top label "N/s"). */
    private static Map<String, List<Long>> series(Element figure) {
        NodeList texts = figure.getElementsByTagName("text");
        long top = Long.parseLong(texts.item(0).getTextContent().replace("/s", ""));
        double zero = Double.parseDouble(((Element) figure.getElementsByTagName("line").item(0)).getAttribute("y2"));
        double height = zero - 10;
        Map<String, List<Long>> out = new LinkedHashMap<>();
        NodeList lines = figure.getElementsByTagName("polyline");
        for (int i = 0; i < lines.getLength(); i++) {
            Element line = (Element) lines.item(i);
            List<Long> values = new ArrayList<>();
            for (String point : line.getAttribute("points").split(" ")) {
                double y = Double.parseDouble(point.substring(point.indexOf(',') + 1));
                values.add(Math.round((zero - y) * top / height));
            }
            out.put(line.getAttribute("data-series"), values);
        }
        return out;
    }

    @Test
    void the_table_has_a_row_per_result_with_its_counts_and_the_charts_draw_each_seconds_counts() throws Exception {
        DrillResult unitas = result(Scenario.DB_READONLY, false, 0, 10, 40, 7, 0, 13, 25);
        DrillResult naive = result(Scenario.DB_READONLY, true, 46, 3, 9, 0, 31, 2, 5);

        Document page = parse(DrillReport.html(List.of(unitas, naive)));

        NodeList rows = page.getElementsByTagName("tr");
        assertThat(rows.getLength()).isEqualTo(3);
        for (int i = 1; i < rows.getLength(); i++) {
            NodeList cells = ((Element) rows.item(i)).getElementsByTagName("td");
            List<String> row = new ArrayList<>();
            for (int c = 0; c < cells.getLength(); c++) {
                row.add(cells.item(c).getTextContent());
            }
            assertThat(row).isEqualTo(DrillTable.rows(List.of(unitas, naive)).get(i - 1));
        }
        assertThat(((Element) rows.item(2)).getElementsByTagName("td").item(2).getTextContent()).isEqualTo("46");

        NodeList figures = page.getElementsByTagName("figure");
        assertThat(figures.getLength()).isEqualTo(2);
        for (int f = 0; f < 2; f++) {
            DrillResult r = List.of(unitas, naive).get(f);
            Element figure = (Element) figures.item(f);
            assertThat(figure.getAttribute("data-mode")).isEqualTo(r.mode());
            Map<String, List<Long>> drawn = series(figure);
            assertThat(drawn).containsOnlyKeys("served by cn", "served by eu", "errors");
            assertThat(drawn.get("served by cn"))
                    .isEqualTo(r.timeline().stream().map(s -> s.servedBy().get("cn")).toList());
            assertThat(drawn.get("served by eu"))
                    .isEqualTo(r.timeline().stream().map(s -> s.servedBy().get("eu")).toList());
            assertThat(drawn.get("errors")).isEqualTo(r.timeline().stream().map(DrillResult.Second::errors).toList());
        }
    }
}
